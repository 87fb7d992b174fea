"""Assembly: move the parts the least so that every joint and motion holds (least-movement
Gauss-Newton on the scaled constraint equations)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...algebra.blas import single_thread
from ...algebra.newton import (NEWTON_TOL, RANK_TOL, NewtonOptions, newton, rounding_tols,
                              scaled_jacobian, scales)
from ...algebra.rank import row_owner
from ...algebra.schur import Schur
from ...base.elementary import arcsin
from ...base.errors import ExpressionError, SolverError
from ...kernels.constraints import (body_arrays, evaluate, global_jacobian, motion_values,
                                    row_groups)
from ...model.compile import Model
from ...model.state import State
from ...vocabulary.joints import DIST, DOT1
from .assembly_newton import LeastMovement, start_track
from ..general_motions import dead_centre, out_of_reach
from ..structure import Structure, structure


# redundant equations that disagree by at most this share of the model's size (or this many
# radians) after the others are closed are taken as imperfect geometry (CAD positions
# printed to a few digits): accepted with a warning; above it, the joints cannot be closed
MISMATCH_TOL = 1e-6


class _Unclosed(SolverError):
    """The equations cannot all be closed (the least-squares compromise leaves a gap);
    raised inside the assembly only, and raised on as a SolverError."""


@dataclass
class Assembly:
    """An assembled pose; when redundant equations disagree (imperfect geometry), the
    structure whose kept rows hold exactly, and a warning that names the joints and the size
    of the disagreement."""
    r: np.ndarray
    p: np.ndarray
    structure: Structure | None = None
    notes: tuple[str, ...] = ()
    track: np.ndarray | None = None    # the tracked values at the pose (State.track)
    jac: np.ndarray | None = None      # the rows' Jacobian blocks at the pose, the Newton's
    #                                    last evaluation's (a model without tracked values)


def assemble_pose(model: Model, r: np.ndarray, p: np.ndarray, t: float = 0.0,
                  max_iter: int = 60, ref: np.ndarray | None = None) -> Assembly:
    """The least-movement assembly at time t (``_close``); when its equations cannot be
    closed because a general motion's target is out of reach, SolverError saying by how
    far (``out_of_reach``: the closest the mechanism comes to the target, from the parts as
    built, tracked values ``ref``) instead of the gap the least-squares compromise leaves."""
    try:
        return _close(model, r, p, t, max_iter)
    except _Unclosed as exc:
        reach = out_of_reach(model, exc.joints, np.flatnonzero(~model.switched), r, p, t, ref,
                             f" at t = {t:.6g} s")
        message = f"assembly failed: {reach}" if reach else str(exc)
        raise SolverError(message, exc.time, exc.joints, exc.result) from None


def _close(model: Model, r: np.ndarray, p: np.ndarray, t: float = 0.0,
           max_iter: int = 60) -> Assembly:
    """Least-movement Newton: each step is the minimum-norm solution of J dq = -Phi with
    rotations weighted by the part's size (Gauss-Newton, halving steps that do not reduce
    the residual).  When the equations cannot all be met, the redundant ones are set aside
    (rank at the least-squares pose) and the others closed exactly: motions that over-drive
    the mechanism, redundant equations that disagree by more than MISMATCH_TOL of the
    model's size, or joints that cannot be closed raise a SolverError naming them."""
    if model.nc == 0:
        return Assembly(r, p)
    try:
        f = motion_values(model, t)
    except ExpressionError as exc:
        raise SolverError(str(exc), t) from None
    rows = np.flatnonzero(~model.switched)            # every joint, coupler and motion
    closed = float(rounding_tols(r, model.body_size)[0])   # far from the origin: rounding
    out = least_movement(model, r, p, f, rows, max_iter)
    if out.ok and out.err <= closed:
        return _on_the_curves(model, Assembly(*out.x, track=out.data[0].track,
                                              jac=last_jacobian(model, out)), t)
    # the equations cannot all be met (or only to rounding: a least-squares compromise)
    jrows = model.constraint_rows
    if len(jrows) < model.nc:            # do the joints close without the motions?
        joints = least_movement(model, r, p, f, jrows, max_iter)     # from the user's pose
        if joints.ok and joints.err <= closed:
            st = structure(model, *joints.x)
            if st.bad_motions:
                _overdriven(model, tuple(st.bad_motions), joints.x, t)
    # redundant equations that disagree: their rows are dependent only up to about the
    # disagreement at the least-squares pose, so the rank test allows for it there
    tol = min(max(RANK_TOL, 1e3 * float(out.err)), 1e-4)
    st = structure(model, *out.x, tol, out.data[0].track)
    if st.bad_motions and _rounding_only(model, out.data[1], MISMATCH_TOL):
        # the joints close but for their input's rounding (Blender's float32), which leaves
        # an over-driving motion a gap of that size: the motion is the cause, not the gap
        _overdriven(model, tuple(st.bad_motions), out.x, t)
    kept = least_movement(model, *out.x, f, st.keep, max_iter) if not st.bad_motions else None
    if kept is None or not kept.ok or kept.err > closed:
        _cannot_close(model, out.data[1], t)
    res = kept.data[1]
    gap = res[st.redundant]
    if _rounding_only(model, res, MISMATCH_TOL, st.redundant):
        # a disagreement at rounding level (the least-squares start, or the input's own
        # precision: Blender's float32) is not worth a word
        loud = not _rounding_only(model, res, 10 * NEWTON_TOL, st.redundant)
        note = (_disagreement(model, kept.x, st, res),) if gap.size and loud else ()
        return _on_the_curves(model, Assembly(*kept.x, st, note, kept.data[0].track), t)
    joints = _loop_joints(model, kept.x, st, res)
    raise _Unclosed(f"assembly failed: the joints cannot all be closed: joints "
                    f"{', '.join(map(repr, joints))} leave a gap of "
                    f"{_size_text(model, res, st.redundant)}", t, joints)


def _rounding_only(model: Model, scaled: np.ndarray, tol: float,
                   rows: np.ndarray | None = None) -> bool:
    """True when the scaled residual ``scaled`` (nc,) of the ``rows`` (None: all) is nowhere
    above ``tol`` or, where larger, what the input's rounding can leave in the row's own
    mechanism (Model.row_rounding: Blender's float32; an object far from the origin beside
    a small mechanism, joined to nothing of it, does not widen the small one's)."""
    rows = slice(None) if rows is None else rows
    return bool((np.abs(scaled[rows]) <= np.maximum(tol, model.row_rounding[rows])).all())


def last_jacobian(model: Model, out) -> np.ndarray | None:
    """The rows' Jacobian blocks at least_movement's pose ``out.x`` (NewtonResult): its last
    evaluation's, there (None for a model with tracked values, whose evaluation there read
    another pose's: its structure evaluates them again from the pose's own)."""
    return None if model.ntrack else out.data[0].jac


def _overdriven(model: Model, bad: tuple[str, ...], x: tuple, t: float) -> None:
    """Raise naming the first motion that drives a coordinate the joints and the other
    motions already fix (or the dead centre it starts at), at pose ``x``."""
    centre = dead_centre(model, bad, *x, t)
    raise SolverError(centre or f"the motions over-drive the mechanism: motion {bad[0]!r} "
                      "drives a coordinate that the joints and the other motions already "
                      "fix (conflicting motions); remove it or free its joint", t, bad)


def curve_contacts(model: Model) -> list[tuple[str, int, Any]]:
    """(joint name, index in State.track, curve) of every curve contact: a point on a
    curve's one, a cam's two (curve I, then curve J)."""
    cp = model.curves
    if cp is None:
        return []
    out = [(name, cp.first + e, curve) for e, (name, curve) in enumerate(zip(cp.pc_names, cp.pc_curve))]
    first = cp.first + len(cp.pc_names)
    for e, (name, (ci, cj)) in enumerate(zip(cp.cam_names, cp.cam_curve)):
        out += [(name, first + 2 * e, ci), (name, first + 2 * e + 1, cj)]
    return out


def _on_the_curves(model: Model, asm: Assembly, t: float) -> Assembly:
    """The assembly, if every curve contact lies on its curve; else SolverError naming the
    joint: an open curve's spline continued past its end (curves.py) closes the equations,
    but there is no slot there, so the joint cannot be closed on its curve (a run from this
    pose would stop at its first frame)."""
    for name, k, curve in curve_contacts(model):
        u = float(asm.track[k])
        if not curve.inside(u):
            past = -u if u < 0.0 else u - curve.length
            end = "start" if u < 0.0 else "end"
            raise SolverError(f"assembly failed: joint {name!r} cannot be closed on its curve: "
                              f"closing it needs its contact {past:.4g} m past the {end} of the "
                              f"open curve {curve.name!r} (length {curve.length:.4g} m); make the "
                              "curve longer or move the parts within its reach", t, (name,))
    return asm


def assemble_state(model: Model, r: np.ndarray, p: np.ndarray, t: float = 0.0,
                   max_iter: int = 60) -> tuple[np.ndarray, np.ndarray]:
    """assemble_pose's pose alone."""
    asm = assemble_pose(model, r, p, t, max_iter)
    return asm.r, asm.p


_BUILT_HERE = object()


def least_movement(model: Model, r, p, f, rows: np.ndarray, max_iter: int,
                   turns: np.ndarray | None = None, sparse: Any = _BUILT_HERE):
    """newton() on the given rows (all, or the independent ones): NewtonResult whose data
    is (row evaluation, scaled residual of every row).  The tracked values (curve contacts,
    couplers' turns) of a trial pose are taken as built (a curve contact by a global
    search) while Newton's steps are large, so that a rough start's contact may move to the
    branch the parts can reach; once a step moves no part by more than TRACK_STEP of the
    model's size they are followed from the accepted iterate, as the sweeps follow them
    from frame to frame (the same contact, without a global search at every trial pose).
    ``turns``: a held limit's angle read on the turn nearest it (analyses/limit_turns.py;
    None: nearest its limit's centre).  ``sparse``: ``sparse_assembly(model, cw, rows)``
    made before for these rows (a Poser projects onto the same rows at every drag step:
    its band ordering and pattern are the rows', not the pose's), else made here."""
    rs, cw = scales(model)
    if sparse is _BUILT_HERE:
        sparse = sparse_assembly(model, cw, rows)
    problem = LeastMovement(model, f, rows, rs, cw, sparse, start_track(model, r, p, f), turns)
    tol, step_tol = (float(x) for x in rounding_tols(r, model.body_size))
    return newton(problem, (r, p), NewtonOptions(max_iter, tol, step_tol, line_search=True,
                                                 stall=(0.9, 8)))


def _cannot_close(model: Model, res: np.ndarray, t: float) -> None:
    """Raise naming the joints with the largest residuals and the gap in metres."""
    res = np.abs(res)
    bad = []
    for k in np.argsort(-res):
        if res[k] <= 1e-6 * max(res.max(), 1e-300) or len(bad) >= 6:
            break
        nm = row_owner(model, k)
        if nm not in bad:
            bad.append(nm)
    raise _Unclosed(f"assembly failed: the joints cannot all be closed: a gap of "
                    f"{_size_text(model, res)} remains; look at: {', '.join(bad)}", t, tuple(bad))


def _size_text(model: Model, scaled: np.ndarray, rows: np.ndarray | None = None) -> str:
    """The largest of scaled residuals as a length (m, and its share of the size of the
    mechanism its row is in, Model.row_length) and/or an angle (rad), each row's gap as it
    misses (``row_gaps``)."""
    rows = np.arange(len(scaled)) if rows is None else rows
    length = model.row_is_length[rows]
    gaps = row_gaps(model, rows, scaled)
    parts = []
    k = int(np.argmax(np.where(length, gaps, -1.0))) if np.any(length) else -1
    g = float(gaps[k]) if k >= 0 else 0.0
    L = float(model.row_length[rows[k]]) if k >= 0 else model.length_scale
    turn = float(np.max(gaps[~length])) if np.any(~length) else 0.0
    if np.any(length) and (g > 0.0 or turn == 0.0):   # (only an angle missed: the angle)
        share = f"{100.0 * g:.2g}%" if g >= 1e-3 else f"{g:.1e}"   # 67%, not 6.7e-01
        parts.append(f"{g * L:.3g} m, {share} of the model's size {L:.3g} m")
    if np.any(~length) and (turn > 0.0 or not parts):
        parts.append(f"{turn:.3g} rad")
    return " and ".join(parts)


def row_gaps(model: Model, rows: np.ndarray, scaled: np.ndarray) -> np.ndarray:
    """How far each row misses, from its scaled residual: in radians for angular rows, in
    its mechanism's size (Model.row_length) for length rows.  A dot-1 row's residual is the cosine of the angle
    between two axes meant to be perpendicular, so it misses by the arcsine of it (axes
    parallel where they should cross: pi/2, not 1); a distance row's is (d^2 - L^2) / (2 L)
    (kernels/constraints.py), so its markers are |d - L| off their length (coincident
    markers of a 0.5 m distance joint: 0.5 m, not 0.25 m); the other rows' residuals are
    their gaps."""
    gap = np.abs(scaled[rows])
    kind = model.row_kind[rows]
    dot = kind == DOT1
    gap[dot] = arcsin(np.minimum(gap[dot], 1.0))
    dist = np.flatnonzero(kind == DIST)
    if dist.size:
        length = _distance_lengths(model, rows[dist])
        phi = scaled[rows[dist]] * model.row_length[rows[dist]]
        d = np.sqrt(np.maximum(length * length + 2.0 * length * phi, 0.0))
        gap[dist] = np.abs(d - length) / model.row_length[rows[dist]]
    return gap


def _distance_lengths(model: Model, rows: np.ndarray) -> np.ndarray:
    """The lengths (m) of distance rows, read from their kernel group."""
    plan = model.plan
    place = plan.inv[rows] if not plan.identity else rows
    group = next(g for g in plan.groups if g.kind == DIST)
    return np.asarray(group.target)[place - group.rows.start]


def _loop_joints(model: Model, x, st: Structure, res: np.ndarray) -> tuple[str, ...]:
    """The joints of the loops whose redundant equations disagree: the rows each
    disagreeing equation depends on (J_kept^T c = J_row, c != 0), and its own joint."""
    bad = st.redundant[np.abs(res[st.redundant]) > 1e-3 * np.max(np.abs(res[st.redundant]))]
    J = scaled_jacobian(model, global_jacobian(model, evaluate(model, *body_arrays(model, *x)[:2]).jac))
    kept = np.intersect1d(st.keep, model.constraint_rows)
    names: list[str] = []
    for k in bad:
        c = np.linalg.lstsq(J[kept].T, J[k], rcond=1e-10)[0]
        # no kept rows (a lone joint's equation whose Jacobian vanishes): its joint alone
        rows = [k] + list(kept[np.abs(c) > 1e-6 * max(np.abs(c).max(initial=0.0), 1e-300)])
        for row in sorted(rows):
            nm = row_owner(model, row)
            if nm not in names:
                names.append(nm)
    return tuple(names)


def _disagreement(model: Model, x, st: Structure, res: np.ndarray, where: str = "") -> str:
    joints = _loop_joints(model, x, st, res)
    return (f"redundant equations in joints {', '.join(map(repr, joints))} disagree by "
            f"{_size_text(model, res, st.redundant)}{where} (accepted as imperfect geometry, "
            "e.g. positions rounded in a CAD export); the mechanism follows the other "
            "equations")


def run_disagreement(model: Model, st: Structure, times: np.ndarray, R: np.ndarray,
                     P: np.ndarray, track: np.ndarray | None = None) -> str | None:
    """A note when the redundant (dropped) equations disagree by more than rounding at some
    output frame of a run (COM positions R (F, nb, 3), Euler parameters P (F, nb, 4), the
    tracked values at each, Result.track: a redundant coupler's angles on their turns):
    imperfect geometry that shows only as the mechanism moves; None otherwise."""
    if not st.redundant.size or not len(R):
        return None
    rs = scales(model)[0]
    # (the rows' groups holding a redundant row only: the others' rows are not read)
    phi = evaluate(model, *body_arrays(model, R, P)[:2], need_jac=False,
                   ref=track if model.ntrack else None,
                   groups=row_groups(model, st.redundant)).phi
    gap = np.abs(phi[:, st.redundant] * rs[st.redundant])
    k = int(np.argmax(gap.max(axis=1)))
    # the stopping rule's slack, or the input's rounding (Model.row_rounding): not geometry
    if _rounding_only(model, phi[k] * rs, 1e3 * NEWTON_TOL, st.redundant):
        return None
    res = phi[k] * rs
    return _disagreement(model, (R[k], P[k]), st, res,
                         f" at t = {float(times[k]):.6g} s (frame {k}), the largest in the run")


@single_thread
def sparse_assembly(model: Model, cw: np.ndarray, rows: np.ndarray):
    """For a large mechanism whose J W^-1 J^T is banded: a function (scaled row Jacobian
    blocks, scaled residual) -> the weighted least-movement step -W^-1 J^T (J W^-1 J^T +
    mu I)^-1 res, W = diag(cw^2) (Levenberg-Marquardt with a tiny mu, so redundant but
    consistent rows do no harm).  None for small or wide-band mechanisms (dense lstsq)."""
    if len(rows) <= 60:
        return None
    sc = Schur(model, rows)
    if not sc.band.banded:
        return None
    nb = model.nb
    Wi = np.zeros((nb + 1, 6, 6))
    Wi[:nb] = np.eye(6)[None] / (cw.reshape(nb, 6) ** 2)[:, None, :]
    diag = np.zeros(len(rows), dtype=int)
    on_diag = np.flatnonzero(sc.pr == sc.pc)
    diag[sc.pr[on_diag][::-1]] = on_diag[::-1]            # first pair (k, k) of each row

    def step(jac: np.ndarray, res: np.ndarray) -> np.ndarray:
        Jb = sc.blocks(jac)
        vals, Wb = sc.matrix(Jb, Wi)
        vals = vals.copy()
        vals[diag] += 1e-10 * float(np.max(vals[diag]))
        return -sc.apply(Wb, sc.solve(vals, res)).reshape(-1)
    return step


def assemble(model: Model, state: State) -> State:
    """The state moved the least so that every joint and motion holds at its time."""
    asm = assemble_pose(model, state.r, state.p, float(state.t))
    return state.moved(asm.r, asm.p)
