"""General motions around a run: a body-fixed 1-2-3 angle set at its singular pose (b2 =
+-90 deg, where b1 and b3 turn about one axis and the angle rows' Jacobian divides by
cos b2: base/rotations.py ``euler_axes``), prescribed or reached; and the efforts of an
actuated motion moved onto its actuators by virtual work (``carry_by_actuators``)."""
from __future__ import annotations

import numpy as np

from ..algebra.newton import RANK_TOL as RANK_TOL_ROWS, scales, step_pose
from ..algebra.rank import involved
from ..base.errors import ExpressionError, SolverError
from ..base.rotations import euler_angles, quat_to_matrix
from ..kernels.constraints import (KERNELS, body_arrays, evaluate, global_jacobian, motion_values,
                                   residual)
from ..model.compile import Model
from ..model.results import Result
from ..model.state import State
from ..vocabulary.joints import ANGLE, EULER
from .structure import structure

ANGLE_KINDS = (ANGLE, EULER)

# |cos b2| below which a general motion's angles are taken as singular: the rows' Jacobian
# grows as 1 / cos b2, so 1e-6 (b2 within 0.2 arc seconds of +-90 deg) leaves it a million
# times its size; an angle row's residual of 1e-12 rad there moves b1 and b3 by 1e-6 rad
GIMBAL_COS = 1e-6


def angle_motions(model: Model) -> list[tuple[str, str, str]]:
    """(name, marker I, marker J) of every general motion that drives one of its angles."""
    names = set(model.motion_names)
    return [(n, mi, mj) for n, mi, mj, _ in model.general_motions
            if any(f"{n}.{a}" in names for a in ("b1", "b2", "b3"))]


def _singular(name: str, b2: float, t: float, frame: int | None,
              result: Result | None, between: tuple[int, int] | None = None) -> SolverError:
    when = (f"at t = {t:.6g} s (frame {frame})" if frame is not None
            else f"at t = {t:.6g} s (between frames {between[0]} and {between[1]})"
            if between is not None
            else f"as the parts are built (the run starts at t = {t:.6g} s)")
    return SolverError(
        f"general motion {name!r}: b2 = {np.degrees(b2):.6g} deg {when} is the body-fixed "
        "1-2-3 angles' singular pose (b2 = +-90 deg: b1 and b3 turn about one axis there); "
        "keep b2 away from +-90 deg, e.g. by turning marker J", t, (name,), result)


def check_prescribed_angles(model: Model, times: np.ndarray) -> None:
    """SolverError naming the motion, time and frame where a prescribed b2 is within
    GIMBAL_COS of +-90 deg at an output time, passes +-90 deg between two output times
    (cos b2 changes sign: the instant found by bisection), or touches it between two output
    times and turns back (b2' changes sign there: its extremum found by bisection, within
    GIMBAL_COS of +-90 deg), the earliest of them; checked before a run.  An extremum is
    seen where b2' has opposite signs at two neighbouring output times (b2 turning back
    twice between two frames is not)."""
    cols = [(n, model.motion_names.index(f"{n}.b2")) for n, _, _ in angle_motions(model)
            if f"{n}.b2" in model.motion_names]
    if not cols:
        return
    times = np.asarray(times, float)
    try:
        f = motion_values(model, times)        # (S, nmotion, 3)
    except ExpressionError:
        return                        # the run names the failing expression itself
    for name, c in cols:
        cos = np.cos(f[:, c, 0])
        bad = np.abs(cos) < GIMBAL_COS
        first = int(np.argmax(bad)) if bad.any() else len(times)
        crossed = np.flatnonzero(np.sign(cos[1:]) != np.sign(cos[:-1]))
        turned = np.flatnonzero(np.sign(f[1:, c, 1]) * np.sign(f[:-1, c, 1]) < 0.0)
        found = []
        if crossed.size and crossed[0] < first:
            k = int(crossed[0])
            found.append(_bisect(model, c, float(times[k]), float(times[k + 1]), 0,
                                 np.cos) + (k,))
        turned = turned[turned < min(first, crossed[0] if crossed.size else first)]
        for k in turned[_near_gimbal(times, f[:, c], turned)]:
            t, b2 = _bisect(model, c, float(times[k]), float(times[k + 1]), 1, lambda d: d)
            if abs(np.cos(b2)) < GIMBAL_COS:
                found.append((t, b2, int(k)))
                break
        if found:
            t, b2, k = min(found)
            raise _singular(name, b2, t, None, None, (k, k + 1))
        if first < len(times):
            raise _singular(name, float(f[first, c, 0]), float(times[first]), first, None)


def _near_gimbal(times: np.ndarray, f: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Which intervals k (times[k], times[k + 1]) may hold b2 within about NEAR_GIMBAL rad
    of +-90 deg: the cubic through b2 and b2' at their ends (f: (S, 3), value and
    derivatives at the times) sampled; the others need no search (a run's many turning
    points far from +-90 deg cost one evaluation of the motions in all)."""
    h = (times[k + 1] - times[k])[:, None]
    s = np.linspace(0.0, 1.0, 17)[None, :]
    y0, y1, d0, d1 = f[k, 0, None], f[k + 1, 0, None], f[k, 1, None] * h, f[k + 1, 1, None] * h
    cubic = ((2 * s ** 3 - 3 * s ** 2 + 1) * y0 + (s ** 3 - 2 * s ** 2 + s) * d0
             + (-2 * s ** 3 + 3 * s ** 2) * y1 + (s ** 3 - s ** 2) * d1)
    return np.abs(np.cos(cubic)).min(axis=1, initial=1.0) < NEAR_GIMBAL


NEAR_GIMBAL = 0.05     # |cos b2| (b2 within about 3 deg of +-90 deg): a turning point searched


def _bisect(model: Model, c: int, ta: float, tb: float, order: int,
            g) -> tuple[float, float]:
    """(t, b2) where g of the prescribed b2's derivative of ``order`` (motion column c; 0:
    g = cos, where b2 passes +-90 deg; 1: g = b2', where b2 turns back) changes sign
    between ta and tb, of opposite signs there: bisection to the times' rounding."""
    def g_at(t: float) -> float:
        return float(g(motion_values(model, t)[c, order]))
    ga = g_at(ta)
    for _ in range(60):
        tm = 0.5 * (ta + tb)
        if tm in (ta, tb):
            break
        gm = g_at(tm)
        if (gm > 0.0) == (ga > 0.0):
            ta, ga = tm, gm
        else:
            tb = tm
    t = 0.5 * (ta + tb)
    return t, float(motion_values(model, t)[c, 0])


def _b2_at(model: Model, p: np.ndarray, mi: int, mj: int) -> tuple[float, float]:
    """(b2, |cos b2|) of marker mi's frame from marker mj's at the Euler parameters p."""
    A = np.concatenate([quat_to_matrix(p), np.eye(3)[None]])          # the ground last
    Ci, Cj = (A[model.marker_body[m]] @ model.marker_axes[m] for m in (mi, mj))
    b, cb = euler_angles(Ci[:, 0], Ci[:, 1], Cj[:, 0], Cj[:, 1])
    return float(b[1]), float(cb)


def check_built_angles(model: Model, p: np.ndarray, t: float) -> None:
    """SolverError naming the motion when the parts as built (Euler parameters p (nb, 4))
    put a general motion's I frame at b2 = +-90 deg from its J frame: the angle rows'
    Jacobian is not defined there, so no assembly can start from it."""
    for name, mi, mj in angle_motions(model):
        b2, cb = _b2_at(model, p, mi, mj)
        if cb < GIMBAL_COS:
            raise _singular(name, b2, t, None, None)


def held_turns(model: Model) -> list[tuple[str, str, str, int]]:
    """(name, marker I, marker J, b1's motion column) of every general motion that holds
    both b1 and b3: the joints may carry its b2 to +-90 deg (``past_gimbal``)."""
    names = list(model.motion_names)
    return [(n, mi, mj, names.index(f"{n}.b1")) for n, mi, mj in angle_motions(model)
            if f"{n}.b1" in names and f"{n}.b3" in names]


def past_gimbal(model: Model, held: list, t: float, p: np.ndarray) -> str:
    """The first general motion of ``held`` (``held_turns``) whose b2 the Euler parameters p
    (nb, 4) at t put at or past +-90 deg, or "".  The angles' rows hold b1 and b3 whatever the
    branch, so a step that carries b2 through +-90 deg ends on the other side of it with
    b1 turned by pi: the continuous cos b2 on the held b1's branch, cos b2 cos(b1 - b1*)
    = cos b1* R22 - sin b1* R12 (R = C_J^T C_I), changes sign there; steps are cut before
    it as before a lined-up position."""
    b1 = motion_values(model, t)[[c for _, _, _, c in held], 0]
    A = np.concatenate([quat_to_matrix(p), np.eye(3)[None]])          # the ground last
    for (name, mi, mj, _), target in zip(held, b1.tolist()):
        Ci, Cj = (A[model.marker_body[m]] @ model.marker_axes[m] for m in (mi, mj))
        zi = np.cross(Ci[:, 0], Ci[:, 1])
        R12, R22 = float(Cj[:, 1] @ zi), float(np.cross(Cj[:, 0], Cj[:, 1]) @ zi)
        if np.cos(target) * R22 - np.sin(target) * R12 < GIMBAL_COS:
            return name
    return ""


def carried_to_gimbal(model: Model, name: str, p: np.ndarray, t: float) -> str:
    """The sentence for general motion ``name`` whose free b2 the joints carried towards
    +-90 deg, b2 at the Euler parameters p at time t."""
    mi, mj = next((mi, mj) for n, mi, mj in angle_motions(model) if n == name)
    b2 = _b2_at(model, p, mi, mj)[0]
    return (f"general motion {name!r}: b2 = {np.degrees(b2):.6g} deg at t = {t:.6g} s and "
            f"carried towards {'+' if b2 > 0 else '-'}90 deg, the body-fixed 1-2-3 angles' "
            "singular pose (b1 and b3 turn about one axis there); keep b2 away from +-90 "
            "deg, e.g. by turning marker J")


def reached_singular(model: Model, who: tuple, p: np.ndarray, t: float) -> str:
    """A sentence for a run that locked up with a general motion's b1 and b3 rows among
    the dependent ones ``who``: the joints carried its free b2 towards +-90 deg, where b1
    and b3 turn about one axis (their rows' Jacobian divides by cos b2); b2 at the last
    solved pose (Euler parameters p, time t); empty when no such motion is named."""
    return "; ".join(carried_to_gimbal(model, name, p, t) for name, _, _ in angle_motions(model)
                     if f"{name}.b1" in who and f"{name}.b3" in who)


def lock_up_cause(model: Model, who: tuple, held_rows: np.ndarray, r: np.ndarray,
                  p: np.ndarray, t_last: float, t: float, ref: np.ndarray | None = None,
                  when: str = "") -> str:
    """Why a run cannot go on from its last solved pose (r, p) at t_last towards time t,
    the dependent rows ``who``: a general motion's b2 carried to +-90 deg
    (``reached_singular``), else a target out of reach at t (``out_of_reach``); empty when
    neither."""
    return (reached_singular(model, who, p, t_last)
            or out_of_reach(model, who, held_rows, r, p, t, ref, when))


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
# a singular value below this share of the largest, and of 1 (rows of unit length before
# their projection): no freedom there
RANK_TOL = 1e-8


def _rank(M: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """(n,) the rank of each (..., rows, cols) matrix M, the projection of ``rows`` (the
    same rows before it, scaled as M's): each row divided by its length before the
    projection, so that a row the projection takes to rounding level (an actuator that does
    not move with the motion's freedoms) counts for none, however its rounding points."""
    if M.shape[-2] == 0:
        return np.zeros(M.shape[:-2], int)
    M = M / np.maximum(np.linalg.norm(rows, axis=-1, keepdims=True), 1e-300)
    S = np.linalg.svd(M, compute_uv=False)
    return np.count_nonzero(S > RANK_TOL * np.maximum(S[..., :1], 1.0), axis=-1)


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
        N, onto_held = _held_rows(J[:, held], cw)
        Aq = np.stack([_global(model, g, _coordinate_jac(model, g, rg, A)) for g in groups], 1)
        G = J[:, mine]
        AN, GN = Aq @ N, G @ N               # (N's columns are in cw's units: rows / cw)
        freedoms, ra = _rank(GN, G / cw), _rank(AN, Aq / cw)
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
        both = _rank(np.concatenate([AN, GN], axis=-2), np.concatenate([Aq, G], axis=-2) / cw)
        if np.any(both > ra):
            raise _fail(name, labels, "cannot make the motion's freedoms", out, both > ra)
        e = out._effort[:, model.row_motion[mine]]
        f = np.einsum("nad,nd->na", np.linalg.pinv(np.swapaxes(AN, -1, -2)),
                      np.einsum("ngd,ng->nd", GN, e))
        carried = np.einsum("na,naq->nq", f, Aq) - np.einsum("ng,ngq->nq", e, G)
        lam[:, held] += onto_held(carried)
        lam[:, mine] = 0.0
        out._actuator[:, cols] = f
    out.store(slice(None), State(out.times, out._r, out._p, out._v, out._w, out._a, out._alpha),
              lam, ev.jac, out.track if model.ntrack else None)


def _held_rows(H: np.ndarray, cw: np.ndarray):
    """For the held rows' Jacobian H (n, h, 6 nb) at every frame, from one SVD of H with
    its columns scaled (cw: rotations in body lengths, so the rank compares like with
    like): a basis N (n, 6 nb, d) of the motions they allow, H N = 0, and the function
    that gives the least-norm multipliers d (n, h) of H^T d = c for forces c (n, 6 nb)."""
    if H.shape[1] == 0:
        return np.broadcast_to(np.diag(1.0 / cw), (len(H),) + (len(cw),) * 2), \
            lambda c: np.zeros(c.shape[:-1] + (0,))
    U, S, Vt = np.linalg.svd(H / cw)
    rank = int(np.count_nonzero(S[0] > RANK_TOL * S[0, 0]))

    def onto_held(c: np.ndarray) -> np.ndarray:       # (H/cw)^T d = c/cw, least norm
        y = np.einsum("nkq,nq->nk", Vt[:, :rank], c / cw) / S[:, :rank]
        return np.einsum("nhk,nk->nh", U[:, :, :rank], y)
    return np.swapaxes(Vt[:, rank:], -1, -2) / cw[:, None], onto_held


def _coordinate_jac(model: Model, g, rg: np.ndarray, A: np.ndarray) -> np.ndarray:
    """(n, 1, 12) the Jacobian blocks of an actuator's coordinate row at every frame."""
    phi, jac = np.empty((len(rg), 1)), np.zeros((len(rg), 1, 12))
    KERNELS[g.kind](g, rg, A, None, None, phi, jac, None)
    return jac


# ---------------------------------------------------------------- out of reach
REACH_STEPS = 200         # Levenberg-Marquardt steps of the closest-approach solve at most
HOLD_TOL = 1e-13          # scaled residual of the held rows a projection brings them to
REACHED = 1e-9            # scaled residual of a target the closest pose meets: reached


def _rows_at(model: Model, r, p, f, ref):
    """(residuals (nc,), dense Jacobian (nc, 6 nb)) at the pose (r, p), motions' values f."""
    rg, A = body_arrays(model, r, p)[:2]
    ev = evaluate(model, rg, A, ref=ref)
    return residual(model, ev.phi, f), global_jacobian(model, ev.jac)


def _project(model: Model, held, r, p, f, ref, rs, cw):
    """The pose moved onto the held rows (least-squares Newton steps, scaled rows and
    columns), with its residuals and Jacobian."""
    res, J = _rows_at(model, r, p, f, ref)
    for _ in range(30):
        h = res[held] * rs[held]
        if np.abs(h).max(initial=0.0) <= HOLD_TOL:
            break
        dq = -(np.linalg.pinv(J[held] * rs[held, None] / cw) @ h) / cw
        r, p = step_pose(r, p, dq)
        res, J = _rows_at(model, r, p, f, ref)
    return r, p, res, J


def closest_approach(model: Model, target: np.ndarray, held: np.ndarray, r: np.ndarray,
                     p: np.ndarray, t: float, ref: np.ndarray | None = None) -> np.ndarray:
    """The residuals (m or rad) of the rows ``target`` at the pose that brings them closest
    to their motions' values at time t (least squares, rows scaled as the Newton's: lengths
    over the model's size) while the rows ``held`` hold: Levenberg-Marquardt steps in the
    held rows' null space (Nocedal and Wright 2006, sec. 10.3), each brought back onto the
    held rows, from the pose (r, p) (nb, 3), (nb, 4).  Where the target is out of reach
    the least-squares residual stays: how far from it the mechanism gets."""
    f = motion_values(model, t)
    rs, cw = scales(model)
    r, p, res, J = _project(model, held, r, p, f, ref, rs, cw)
    cost, mu = float(np.sum((res[target] * rs[target]) ** 2)), 1e-6
    for _ in range(REACH_STEPS):
        Hs = J[held] * rs[held, None] / cw
        _, S, Vt = np.linalg.svd(Hs)
        rank = int(np.count_nonzero(S > RANK_TOL * S[0])) if S.size else 0
        N = Vt[rank:].T
        GN = (J[target] * rs[target, None] / cw) @ N
        g = res[target] * rs[target]
        z = np.linalg.solve(GN.T @ GN + mu * np.eye(N.shape[1]), -GN.T @ g)
        r2, p2, res2, J2 = _project(model, held, *step_pose(r, p, (N @ z) / cw), f, ref, rs, cw)
        cost2 = float(np.sum((res2[target] * rs[target]) ** 2))
        if cost2 < cost and np.abs(res2[held] * rs[held]).max(initial=0.0) <= 1e3 * HOLD_TOL:
            done = cost - cost2 <= 1e-14 * cost
            r, p, res, J, cost, mu = r2, p2, res2, J2, cost2, max(mu / 3.0, 1e-15)
            if done:
                break
        else:
            mu *= 4.0
            if mu > 1e8:
                break
    return res[target]


def out_of_reach(model: Model, names: tuple, held_rows: np.ndarray, r: np.ndarray,
                 p: np.ndarray, t: float, ref: np.ndarray | None = None, when: str = "") -> str:
    """A sentence per general motion among ``names`` (motion or joint names) whose target
    the mechanism cannot reach at time t: how far the closest pose (``closest_approach``
    from (r, p), the other ``held_rows`` held) stays from it, in m (and rad for its
    angles), followed by ``when`` (" at t = ... s (frame k)"); empty when none is named."""
    out = []
    for name, _, _, _ in model.general_motions:
        motions = [k for k, m in enumerate(model.motion_names)
                   if m.rsplit(".", 1)[0] == name and m in names]
        if not motions:
            continue
        mine = [k for k, m in enumerate(model.motion_names) if m.rsplit(".", 1)[0] == name]
        target = np.flatnonzero(np.isin(model.row_motion, mine))
        try:
            gap = closest_approach(model, target, np.setdiff1d(held_rows, target), r, p, t, ref)
        except (np.linalg.LinAlgError, ValueError):
            continue
        angle = np.isin(model.row_kind[target], ANGLE_KINDS)
        if np.abs(gap / model.row_length[target]).max(initial=0.0) <= REACHED:
            continue                  # the target can be reached: something else failed
        text = f"{np.linalg.norm(gap[~angle]):.4g} m"
        if angle.any():
            text += f" and {np.degrees(np.linalg.norm(gap[angle])):.4g} deg"
        out.append(f"general motion {name!r} is out of reach by {text}{when} (the closest the "
                   "mechanism comes to its target)")
    return "; ".join(out)


# ---------------------------------------------------------------- dead centres
# a move of this share of the model's size along the joints' freedoms takes a pose off a
# dead centre: the motions' rows, dependent only there, are independent a little away
# (their rank test, RANK_TOL of a row's length, sees 1e-3 plainly); a pose further than
# this share of its mechanism's size from a general motion's target is not on it
OFF_CENTRE = 1e-3


def dead_centre(model: Model, bad_motions: tuple, r: np.ndarray, p: np.ndarray, t: float,
                ref: np.ndarray | None = None, how: str = "") -> str:
    """A sentence when the motions ``bad_motions`` (dependent on the joints and the other
    motions at the pose (r, p), time t) start at a dead centre: joints lined up so that the
    motions' rows lose rank at this pose only (a general motion's target on the edge of
    the reach; a slider-crank driven by its slide with crank and rod in line), not
    everywhere (over-driving); empty otherwise.  Decided by the rank a little away: the
    pose moved by OFF_CENTRE of the model's size along the joints' freedoms (a fixed mix
    of their null space's directions) and brought back onto them.  ``how`` follows "dead
    centre" in the sentence (" up to the rounding of its inputs")."""
    general = {n for n, _, _, _ in model.general_motions}
    owner = {m: m.rsplit(".", 1)[0] if m.rsplit(".", 1)[0] in general else m
             for m in (*bad_motions, *model.motion_names)}
    names = {owner[m] for m in bad_motions}
    motions = [n for n, _, _, _ in model.general_motions if n in names]
    rs, cw = scales(model)
    held = model.constraint_rows
    f = motion_values(model, t)
    res, J = _rows_at(model, r, p, f, ref)
    N = _null_space(J[held] * rs[held, None] / cw)
    if N.shape[1] == 0:
        return ""
    mix = N @ np.sqrt(np.arange(2.0, N.shape[1] + 2.0))
    dq = mix * (OFF_CENTRE * model.length_scale / np.linalg.norm(mix)) / cw
    r2, p2 = _project(model, held, *step_pose(r, p, dq), f, ref, rs, cw)[:2]
    if structure(model, r2, p2, ref=ref).bad_motions:
        return ""                         # dependent away from here too: over-driving
    mine = np.flatnonzero(np.isin(model.row_motion, [k for k, m in enumerate(model.motion_names)
                                                     if owner[m] in names]))
    joints = [n for n in involved(model, J, np.concatenate([held, mine]))
              if n in model.joint_names]
    lined = f"joints {', '.join(map(repr, joints))} lined up" if joints else "a singular pose"
    if len(motions) != len(names):        # a joint's motion among them
        return (f"motion {', '.join(map(repr, bad_motions))} starts at a dead centre{how} at "
                f"t = {t:.6g} s ({lined}): there it cannot move the parts, and which way "
                "they go from there is undecided; build the mechanism a little off the "
                "dead centre, the way it should go, or drive another joint")
    start = f"general motion {', '.join(map(repr, motions))} starts at a dead centre{how} at " \
            f"t = {t:.6g} s ({lined}): "
    off = _target_gap(model, res, mine)
    if off:        # the parts are built on the edge, not the target: say so and how far
        return (f"{start}its parts are built on the edge of the mechanism's reach, {off} from "
                f"its target, where {', '.join(map(repr, bad_motions))} cannot move them, and "
                "which way they fold from there is undecided; build the parts folded the way "
                "they should go")
    return (f"{start}its target is on the edge of the mechanism's reach, "
            f"where {', '.join(map(repr, bad_motions))} cannot move the parts, and which way "
            "they fold from there is undecided; start the target inside the reach, with the "
            "parts built folded the way they should go")


def rounded_dead_centre(model: Model, bad_motions: list, r: np.ndarray, p: np.ndarray,
                        t: float, ref: np.ndarray | None = None) -> tuple[str, tuple]:
    """(sentence, motions) when the assembled start (r, p) is a dead centre up to the
    rounding of its inputs (Model.row_rounding: Blender's float32, each row its own
    mechanism's); ("", ()) otherwise, or where the motions are already dependent there
    (``bad_motions``: ``dead_centre`` speaks for them) or the input is exact.  A length mismatch delta, as the rounding
    leaves, folds a dead centre by sqrt(2 r delta) (a slider-crank: x = r + l - c theta^2,
    c = r (1 + r / l) / 2), and the motions' rows there are dependent but for a share of
    about sqrt(2 delta / size) of their scaled length (delta at most row_rounding of the
    mechanism's size); the rank test at twice sqrt(2 row_rounding) finds them, the factor
    for the geometry (a four-bar's toggle, a 1e-7 m mismatch: 1.5 sqrt(row_rounding)),
    and ``dead_centre`` tells a dead centre from over-driving by the rank a little away.
    A start that close to a dead centre (0.1 deg for a 0.35 m four-bar in float32) is
    taken as at it.  For a sound mechanism this is one more rank test, no solve."""
    if bad_motions or model.input_rounding <= 0.0 or not model.motion_names:
        return "", ()
    loose = structure(model, r, p, np.maximum(RANK_TOL_ROWS, np.sqrt(8.0 * model.row_rounding)),
                      ref)
    if not loose.bad_motions:
        return "", ()
    bad = tuple(loose.bad_motions)
    return dead_centre(model, bad, r, p, t, ref, " up to the rounding of its inputs"), bad


def _target_gap(model: Model, res: np.ndarray, rows: np.ndarray) -> str:
    """How far the pose misses the general motion's target on its ``rows`` ("0.2 m", "5
    deg", or both), where more than OFF_CENTRE of its mechanism's size (the rows'
    Model.row_length: not of a larger one beside it) or rad: the parts built on the edge
    of the reach with the target inside it; empty where the pose is at the target (the
    target on the edge)."""
    length = model.row_is_length[rows]
    dist = float(np.linalg.norm(res[rows][length]))
    turn = float(np.linalg.norm(res[rows][~length]))
    size = float(np.max(model.row_length[rows][length], initial=0.0))   # its mechanism's
    by = ([f"{dist:.3g} m"] if dist > OFF_CENTRE * size else []) + (
        [f"{np.degrees(turn):.3g} deg"] if turn > OFF_CENTRE else [])
    return " and ".join(by)


def _null_space(Hs: np.ndarray) -> np.ndarray:
    """(n, d) an orthonormal basis of the motions the scaled rows Hs (h, n) allow."""
    if Hs.shape[0] == 0:
        return np.eye(Hs.shape[1])
    _, S, Vt = np.linalg.svd(Hs)
    rank = int(np.count_nonzero(S > RANK_TOL * S[0])) if S.size else 0
    return Vt[rank:].T
