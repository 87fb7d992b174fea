"""Compliant stops' forces (Adams IMPACT on a joint limit's bound; vocabulary/limits.py):
a push F = max(0, k delta^n + c(delta) d delta/dt) >= 0 along the coordinate back into its
range, delta the penetration past the bound, and its Jacobians for the implicit method."""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..base.elementary import power
from .constraints import global_jacobian, limit_offsets, row_forces, row_rates

class StopEval(NamedTuple):
    """Compliant stops at one state (one entry per compliant bound, LimitPlan order)."""
    bounds: np.ndarray   # (n,) LimitPlan index
    Q: np.ndarray        # (..., nb+1, 6) generalized forces on the bodies (ground last)
    Qq: np.ndarray       # (..., n) force along the coordinate (sgn F: toward a larger q > 0)
    power: np.ndarray    # (...,) sum Qq q', W
    dF: np.ndarray       # (..., n) dF / d delta
    c: np.ndarray        # (..., n) dF / d(d delta / dt): the damping in effect


def stop_forces(model: Any, phi: np.ndarray, jac: np.ndarray, vel: np.ndarray,
                turns: np.ndarray | None = None) -> StopEval | None:
    """The compliant stops' forces from the rows' values phi (..., nc), Jacobian blocks and
    body velocities vel (..., nb+1, 6) (ground last): delta = -sgn (q - bound) > 0 past the
    bound, F = max(0, k delta^n + c_max STEP(delta/d) d delta/dt) (Adams IMPACT; STEP the cubic
    s^2 (3 - 2 s) on [0, 1]), Q_q = sgn F along the coordinate; an angle on the turn nearest
    ``turns`` (``limit_offsets``).  None without such stops."""
    lm = model.limits
    if lm is None or not lm.compliant.any():
        return None
    b = np.flatnonzero(lm.compliant)
    rows, sgn = lm.rows[b], lm.sgn[b]
    q = limit_offsets(model, phi[..., lm.rows], turns)[..., b]
    qd = row_rates(model, rows, jac, vel)
    delta, ddelta = np.maximum(-sgn * q, 0.0), -sgn * qd
    inside = delta > 0.0
    # (a study's stacked plan has these per variant: (V, ..., nbound), hence the ...)
    k, n, c_max, d = (x[..., b] for x in (lm.stiffness, lm.exponent, lm.damping, lm.penetration))
    s = np.clip(delta / d, 0.0, 1.0)
    c = c_max * s * s * (3.0 - 2.0 * s)
    dpow = power(np.where(inside, delta, 1.0), n - 1.0)
    raw = k * dpow * delta + c * ddelta
    on = inside & (raw > 0.0)
    F = np.where(on, raw, 0.0)
    dF = np.where(on, k * n * dpow + c_max * 6.0 * s * (1.0 - s) / d * ddelta, 0.0)
    Qq = sgn * F
    Q = row_forces(model, rows, Qq, jac, model.nb + 1)
    return StopEval(b, Q, Qq, np.sum(Qq * qd, axis=-1), dF, np.where(on, c, 0.0))


def stop_jacobians(model: Any, phi: np.ndarray, jac: np.ndarray, vel: np.ndarray,
                   turns: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """dQ/dq and dQ/dv (6 nb, 6 nb) of the compliant stops at one state: Q = J_q^T sgn F with
    d delta = -sgn J_q dq, so dQ/dq = -J_q^T F'(delta) J_q and dQ/dv = -J_q^T c J_q (the
    term F dJ_q/dq, the row's curvature, left out: an iteration matrix)."""
    se = stop_forces(model, phi, jac, vel, turns)
    if se is None or not (np.any(se.dF) or np.any(se.c)):
        return None
    Jq = global_jacobian(model, jac)[model.limits.rows[se.bounds]]
    return -(Jq.T * se.dF) @ Jq, -(Jq.T * se.c) @ Jq
