"""Assembly, degrees of freedom and redundancy, kinematic sweep, inverse dynamics and
joint reactions (seed 003: "Inverse dynamics - kinematically driven", "Lagrange
multipliers for specific constraints").

Equations of motion with multipliers (Haug eq. 11.1.4, world-axes angular velocity):
    M a + J^T lambda = Q,   Q = [m g ; -w x (I_w w)] per body,
so the constraint force on the bodies is -J^T lambda.  A motion's effort along its
coordinate is -lambda of its row.  Redundant equations are dropped from the solve; the
joints' multipliers are then the least-norm set that gives the same constraint forces.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .blas import single_thread
from .constraints import body_arrays, evaluate, global_jacobian
from .errors import MechanismError, SolverCancelled, SolverError
from .expressions import ExpressionError
from .model import ANGLE, Mechanism, Model, body_state, compile_model, store_pose
from .results import Result
from .rotations import congruence, rotate_world

NEWTON_TOL = 1e-12      # scaled residual (rows in m divided by the length scale)
RANK_TOL = 1e-8         # relative size of a row's new direction to count as independent
COND_LIMIT = 1e10       # 1-norm condition of the scaled Jacobian taken as a lock-up


# ---------------------------------------------------------------- shared pieces
def motion_values(model: Model, t: float) -> np.ndarray:
    """(nmotion, 3): value, first and second time derivative of every motion at t."""
    if not model.motion_functions:
        return np.zeros((0, 3))
    return np.array([fn.derivatives(t) for fn in model.motion_functions], dtype=float)


def residual(model: Model, phi: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Constraint residuals with motion functions subtracted; angles wrapped to (-pi, pi].
    phi (..., nc) and f (..., nmotion, 3) may carry leading axes (frames)."""
    res = phi.copy()
    drv = model.row_motion >= 0
    if drv.any():
        res[..., drv] -= f[..., model.row_motion[drv], 0]
        ang = drv & (model.row_kind == ANGLE)
        res[..., ang] = (res[..., ang] + np.pi) % (2.0 * np.pi) - np.pi
    return res


def _scales(model: Model) -> tuple[np.ndarray, np.ndarray]:
    """Row scales (1/m for length rows) and column weights (body length for rotations)."""
    col = np.ones((model.nb, 6))
    col[:, 3:] = model.body_length[:, None]
    return 1.0 / model.row_length, col.reshape(-1)


def _step(r: np.ndarray, p: np.ndarray, dq: np.ndarray, alpha: float = 1.0):
    d = alpha * dq.reshape(r.shape[:-1] + (6,))
    return r + d[..., :3], rotate_world(p, d[..., 3:])


def independent_rows(model: Model, J: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Rows (indices into J, taken in order) that are independent of the rows before them.

    On the scaled Jacobian a row is redundant when less than RANK_TOL of its length points
    in a new direction: greedy Gram-Schmidt with re-orthogonalization for small sets; for
    large ones whose Gram matrix is banded in this order, the same test as a Cholesky
    factorization of the Gram matrix that skips rows with a pivot below RANK_TOL^2 of
    their squared length (the pivot is the squared length of the new direction).
    """
    rs, cw = _scales(model)
    Js = J[rows] * rs[rows, None] / cw[None, :]
    if len(rows) > 60:
        keep = _banded_independent(model, Js, rows)
        if keep is not None:
            return keep
    basis = np.empty((min(len(rows), J.shape[1]), J.shape[1]))
    nk = 0
    keep = []
    for k, row in zip(rows, Js):
        n0 = np.linalg.norm(row)
        if n0 == 0.0:
            continue
        B = basis[:nk]
        x = row - B.T @ (B @ row)
        x -= B.T @ (B @ x)
        nx = np.linalg.norm(x)
        if nx > RANK_TOL * n0:
            basis[nk] = x / nx
            nk += 1
            keep.append(k)
    return np.array(keep, dtype=int)


def _banded_independent(model: Model, Js: np.ndarray, rows: np.ndarray) -> np.ndarray | None:
    """The greedy rank test by a skipping Cholesky of G = Js Js^T when G's band (rows in the
    given order) is narrow; None when it is not.  Rows appended out of band order (motions
    after all joints) are also tried sorted by body: when every row is independent in that
    order the answer does not depend on the order; otherwise None."""
    bi, bj = model.row_bi[rows], model.row_bj[rows]
    kd = _gram_band(model, bi, bj)
    if (kd + 1) * 4 < len(rows):
        return rows[_skipping_cholesky(Js, kd)]
    order = np.argsort(np.minimum(bi, bj), kind="stable")     # the ground (nb) sorts last
    kd = _gram_band(model, bi[order], bj[order])
    if (kd + 1) * 4 < len(rows) and _skipping_cholesky(Js[order], kd).all():
        return rows
    return None


def _gram_band(model: Model, bi: np.ndarray, bj: np.ndarray) -> int:
    """Half-bandwidth of the Gram matrix of rows touching bodies bi, bj (in this order)."""
    ends = [np.flatnonzero((bi == b) | (bj == b)) for b in range(model.nb)]
    return max((int(e.max() - e.min()) for e in ends if e.size), default=0)


def _skipping_cholesky(Js: np.ndarray, kd: int) -> np.ndarray:
    """(n,) mask of rows independent of the kept rows before them: Cholesky of the banded
    G = Js Js^T (half-bandwidth kd) that skips a row whose pivot (the squared length of its
    new direction) is below RANK_TOL^2 of its squared length."""
    n = len(Js)
    G = Js @ Js.T           # dense but only band entries are non-zero; n is a few hundred
    L = np.zeros((n, n))
    keep = np.zeros(n, dtype=bool)
    for k in range(n):
        gkk = G[k, k]
        if gkk == 0.0:
            continue
        lo = max(0, k - kd)
        win = np.flatnonzero(keep[lo:k]) + lo
        if win.size:
            Lw = L[np.ix_(win, win)]
            lk = np.linalg.solve(Lw, G[k, win])       # L_ww l = g: the row's projections
            piv = gkk - float(lk @ lk)
        else:
            piv = gkk
        if piv > RANK_TOL ** 2 * gkk:
            if win.size:
                L[k, win] = lk
            L[k, k] = np.sqrt(piv)
            keep[k] = True
    return keep


def _involved(model: Model, J: np.ndarray, rows: np.ndarray) -> tuple[str, ...]:
    """Joints and motions whose rows make the scaled Jacobian (nearly) singular."""
    rs, cw = _scales(model)
    Js = J[rows] * rs[rows, None] / cw[None, :]
    u, s, _ = np.linalg.svd(Js)
    vec = np.abs(u[:, -1]) if Js.shape[0] <= Js.shape[1] else np.abs(u[:, Js.shape[1]:]).max(axis=1)
    names = []
    for k in rows[vec > 0.2 * vec.max()]:
        nm = _row_owner(model, k)
        if nm not in names:
            names.append(nm)
    return tuple(names)


def _row_owner(model: Model, k: int) -> str:
    if model.row_joint[k] >= 0:
        return model.joint_names[model.row_joint[k]]
    return model.motion_names[model.row_motion[k]]


# ---------------------------------------------------------------- assembly
def assemble_state(model: Model, r: np.ndarray, p: np.ndarray, t: float = 0.0,
                   max_iter: int = 60) -> tuple[np.ndarray, np.ndarray]:
    """Least-movement Newton: each step is the minimum-norm solution of J dq = -Phi with
    rotations weighted by the part's size (Gauss-Newton, halving steps that do not reduce
    the residual).  Raises SolverError naming the joints that cannot be closed."""
    if model.nc == 0:
        return r, p
    rs, cw = _scales(model)
    try:
        f = motion_values(model, t)
    except ExpressionError as exc:
        raise SolverError(str(exc), t) from None
    stall = 0
    sparse = _sparse_assembly(model, cw)
    for _ in range(max_iter):
        ev = evaluate(model, *body_arrays(model, r, p)[:2])
        res = residual(model, ev.phi, f) * rs
        err = np.max(np.abs(res))
        if err <= NEWTON_TOL:
            return r, p
        if sparse is not None:
            dq = sparse(ev.jac * rs[:, None], res)
        else:
            Js = global_jacobian(model, ev.jac) * rs[:, None] / cw[None, :]
            dq = np.linalg.lstsq(Js, -res, rcond=1e-10)[0] / cw
        # keep each rotation step below 0.5 rad so that a far start does not flip parts
        big = np.abs(dq.reshape(-1, 6)[:, 3:]).max(initial=0.0)
        alpha = min(1.0, 0.5 / big) if big > 0 else 1.0
        for _ in range(30):
            r1, p1 = _step(r, p, dq, alpha)
            ev1 = evaluate(model, *body_arrays(model, r1, p1)[:2])
            err1 = np.max(np.abs(residual(model, ev1.phi, f) * rs))
            if err1 < err or err1 <= NEWTON_TOL:
                break
            alpha *= 0.5
        else:
            break
        stall = stall + 1 if err1 > 0.9 * err else 0
        r, p = r1, p1
        if stall > 8:
            break
    ev = evaluate(model, *body_arrays(model, r, p)[:2])
    res = np.abs(residual(model, ev.phi, f) * rs)
    bad = []
    for k in np.argsort(-res):
        if res[k] <= 1e-6 * max(res.max(), 1e-300) or len(bad) >= 6:
            break
        nm = _row_owner(model, k)
        if nm not in bad:
            bad.append(nm)
    raise SolverError(f"assembly failed: the joints cannot all be closed (largest residual "
                      f"{res.max():.3g}); look at: {', '.join(bad)}", t, tuple(bad))


@single_thread
def _sparse_assembly(model: Model, cw: np.ndarray):
    """For a large mechanism whose J W^-1 J^T is banded: a function (scaled row Jacobian
    blocks, scaled residual) -> the weighted least-movement step -W^-1 J^T (J W^-1 J^T +
    mu I)^-1 res, W = diag(cw^2) (Levenberg-Marquardt with a tiny mu, so redundant but
    consistent rows do no harm).  None for small or wide-band mechanisms (dense lstsq)."""
    if model.nc <= 60:
        return None
    from .schur import Schur
    sc = Schur(model, np.arange(model.nc))
    if not sc.band.banded:
        return None
    nb = model.nb
    Wi = np.zeros((nb + 1, 6, 6))
    Wi[:nb] = np.eye(6)[None] / (cw.reshape(nb, 6) ** 2)[:, None, :]
    diag = np.zeros(model.nc, dtype=int)
    on_diag = np.flatnonzero(sc.pr == sc.pc)
    diag[sc.pr[on_diag][::-1]] = on_diag[::-1]            # first pair (k, k) of each row

    def step(jac: np.ndarray, res: np.ndarray) -> np.ndarray:
        Jb = sc.blocks(jac)
        vals, Wb = sc.matrix(Jb, Wi)
        vals = vals.copy()
        vals[diag] += 1e-10 * float(np.max(vals[diag]))
        return -sc.transpose_times(Wb, sc.solve(vals, res))[:nb].reshape(-1)
    return step


def assemble_mechanism(mech: Mechanism, time: float = 0.0) -> None:
    """Assemble and write the new placements back into the mechanism's parts."""
    model = compile_model(mech)
    r, p, _, _ = body_state(model, mech)
    r, p = assemble_state(model, r, p, time)
    store_pose(model, mech, r, p)


# ---------------------------------------------------------------- diagnostics
@dataclass
class CheckReport:
    """What check() found: DOF by rank (without and with motions), redundant equations by
    joint, problems that stop an analysis, and notes."""
    dof: int
    driven_dof: int
    redundant: dict[str, list[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    assembled: bool = True

    @property
    def ok(self) -> bool:
        return not self.problems

    def __str__(self) -> str:
        lines = [f"degrees of freedom: {self.dof} ({self.driven_dof} after motions)"]
        for j, eqs in self.redundant.items():
            lines.append(f"redundant in joint {j!r}: {len(eqs)} equation(s): {', '.join(eqs)}")
        lines += [f"problem: {p}" for p in self.problems] + [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


@dataclass
class Structure:
    """Row selection at an assembled pose: joint rows kept, motion rows, dof."""
    keep: np.ndarray            # independent rows (joints then motions)
    redundant: np.ndarray       # joint rows dropped as redundant
    dof: int
    driven_dof: int
    bad_motions: list[str]


def structure(model: Model, r: np.ndarray, p: np.ndarray) -> Structure:
    ev = evaluate(model, *body_arrays(model, r, p)[:2])
    J = global_jacobian(model, ev.jac)
    jrows = np.flatnonzero(model.row_joint >= 0)
    mrows = np.flatnonzero(model.row_motion >= 0)
    kj = independent_rows(model, J, jrows)
    kall = independent_rows(model, J, np.concatenate([kj, mrows]))
    bad = [model.motion_names[model.row_motion[k]] for k in mrows if k not in set(kall)]
    return Structure(kall, np.setdiff1d(jrows, kj), 6 * model.nb - len(kj),
                     6 * model.nb - len(kall), bad)


@single_thread
def check(mech: Mechanism) -> CheckReport:
    """Assemble a copy, then count freedoms and name redundant equations; never raises for
    a mechanism that fails to assemble (that is reported as a problem)."""
    model = compile_model(mech)
    r, p, _, _ = body_state(model, mech)
    problems, notes, assembled = [], [], True
    try:
        r, p = assemble_state(model, r, p, 0.0)
    except SolverError as exc:
        problems.append(str(exc))
        assembled = False
    st = structure(model, r, p)
    redundant: dict[str, list[str]] = {}
    for k in st.redundant:
        redundant.setdefault(_row_owner(model, k), []).append(model.row_label[k].split(": ", 1)[1])
    for mn in st.bad_motions:
        problems.append(f"motion {mn!r} drives a coordinate that the joints and other motions "
                        "already fix (redundant or conflicting motion)")
    if redundant:
        notes.append(f"{len(st.redundant)} redundant equation(s) removed; reactions in joints "
                     f"{', '.join(map(repr, redundant))} are not unique: the least-norm "
                     "multipliers are reported")
    if st.driven_dof > 0:
        notes.append(f"{st.driven_dof} degree(s) of freedom are not driven by motions: "
                     "a dynamic analysis is needed")
    return CheckReport(st.dof, st.driven_dof, redundant, problems, notes, assembled)


# ---------------------------------------------------------------- kinematic sweep
def report_progress(progress, k: int, n: int, result: Result) -> None:
    """Call progress(frames done, frames in all); a False answer cancels the analysis."""
    if progress is not None and progress(k + 1, n) is False:
        t = float(result.times[k])
        raise SolverCancelled(f"cancelled at t = {t:.6g} s (frame {k})", t, (), result.truncated(k + 1))



@single_thread
def solve(mech: Mechanism, duration: float, fps: float = 24.0, analysis: str = "auto",
          tolerance: float = 1e-6, method: str = "auto", progress=None, **options) -> Result:
    """Assemble at t = 0 (on a copy), choose the analysis (kinematic when the motions drive
    every degree of freedom, else dynamic) and compute the output frames."""
    try:
        duration, fps = float(duration), float(fps)
    except (TypeError, ValueError):
        raise MechanismError("duration and fps must be numbers") from None
    if not (np.isfinite(duration) and duration >= 0.0):
        raise MechanismError(f"duration must be a finite number >= 0, got {duration}")
    if not (np.isfinite(fps) and fps > 0.0):
        raise MechanismError(f"fps must be a positive number, got {fps}")
    if analysis not in ("auto", "kinematic", "dynamic"):
        raise MechanismError(f"analysis must be 'auto', 'kinematic' or 'dynamic', got {analysis!r}")
    if options:
        raise MechanismError(f"unknown solve option(s): {', '.join(options)}")
    if method not in ("auto", "explicit", "implicit"):
        raise MechanismError(f"method must be 'auto', 'explicit' or 'implicit', got {method!r}")
    try:
        tolerance = float(tolerance)
    except (TypeError, ValueError):
        raise MechanismError(f"tolerance must be a number, got {tolerance!r}") from None
    if not (1e-14 <= tolerance <= 1e-1):
        raise MechanismError(f"tolerance must be between 1e-14 and 0.1, got {tolerance}")
    model = compile_model(mech)
    r, p, v, w = body_state(model, mech)
    r, p = assemble_state(model, r, p, 0.0)
    st = structure(model, r, p)
    if st.bad_motions:
        raise SolverError(f"motion {st.bad_motions[0]!r} drives a coordinate that is already "
                          "fixed by the joints or other motions", 0.0, tuple(st.bad_motions))
    if analysis == "auto":
        analysis = "kinematic" if st.driven_dof == 0 else "dynamic"
    times = np.arange(int(round(duration * fps)) + 1) / fps
    if analysis == "dynamic":
        from .dynamics import dynamic_run
        return dynamic_run(model, st, r, p, v, w, times, tolerance, method, progress)
    if st.driven_dof > 0:
        raise SolverError(f"kinematic analysis needs every degree of freedom driven: "
                          f"{st.driven_dof} remain (add motions or use analysis='dynamic')", 0.0)
    from .sweep import kinematic_sweep
    return kinematic_sweep(model, st, r, p, times, progress)


def inertia_world(model: Model, A: np.ndarray) -> np.ndarray:
    """(nb, 3, 3) inertia about the centre of mass in world axes, A I A^T."""
    return congruence(A, model.body_inertia)
