"""Assembly: move the parts the least so that every joint and motion holds (least-movement
Gauss-Newton on the scaled constraint equations)."""
from __future__ import annotations

import numpy as np

from ..algebra.blas import single_thread
from ..algebra.newton import newton, scaled_jacobian, scales, step_pose, step_size
from ..algebra.rank import row_owner
from ..algebra.schur import Schur
from ..base.errors import ExpressionError, SolverError
from ..kernels.constraints import body_arrays, evaluate, global_jacobian, motion_values, residual
from ..model.compile import Model
from ..model.state import State


def assemble_state(model: Model, r: np.ndarray, p: np.ndarray, t: float = 0.0,
                   max_iter: int = 60) -> tuple[np.ndarray, np.ndarray]:
    """Least-movement Newton: each step is the minimum-norm solution of J dq = -Phi with
    rotations weighted by the part's size (Gauss-Newton, halving steps that do not reduce
    the residual).  Raises SolverError naming the joints that cannot be closed."""
    if model.nc == 0:
        return r, p
    rs, cw = scales(model)
    try:
        f = motion_values(model, t)
    except ExpressionError as exc:
        raise SolverError(str(exc), t) from None
    sparse = _sparse_assembly(model, cw)

    def scaled_residual(x):
        ev = evaluate(model, *body_arrays(model, *x)[:2])
        res = residual(model, ev.phi, f) * rs
        return np.max(np.abs(res)), (ev, res)

    def solve(x, data):
        ev, res = data
        if sparse is not None:
            return sparse(ev.jac * rs[:, None], res)
        Js = scaled_jacobian(model, global_jacobian(model, ev.jac))
        return np.linalg.lstsq(Js, -res, rcond=1e-10)[0] / cw

    def first_alpha(dq):
        # keep each rotation step below 0.5 rad so that a far start does not flip parts
        big = np.abs(dq.reshape(-1, 6)[:, 3:]).max(initial=0.0)
        return min(1.0, 0.5 / big) if big > 0 else 1.0

    out = newton((r, p), scaled_residual, solve, lambda x, dq, alpha: step_pose(*x, dq, alpha),
                 lambda x, dq, alpha: step_size(model, dq, alpha), max_iter, line_search=True,
                 first_alpha=first_alpha, stall=(0.9, 8))
    if out.ok:
        return out.x
    res = np.abs(out.data[1])
    bad = []
    for k in np.argsort(-res):
        if res[k] <= 1e-6 * max(res.max(), 1e-300) or len(bad) >= 6:
            break
        nm = row_owner(model, k)
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


def assemble(model: Model, state: State) -> State:
    """The state moved the least so that every joint and motion holds at its time."""
    return state.moved(*assemble_state(model, state.r, state.p, float(state.t)))
