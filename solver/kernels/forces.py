"""Force elements: translational spring-damper-actuators between two markers, torsion
spring-damper-actuators on a joint's angle, and applied forces and torques at a marker
(seed 001 "Translational / Rotational spring-damper-actuator", seed 003 generalized forces).

Sign conventions
- Spring-damper between markers I and J: tension
  ``f = k (l - L0) + c dl/dt + preload + friction * tanh((dl/dt) / V_FRICTION) + actuator(t, l, dl/dt)``
  pulls the two markers together (positive f: force on I toward J), l = |P_J - P_I|.
  ``preload`` is the tension at the free length (negative: a compressed, pushing spring).
- Torsion spring on a joint: ``T = k (theta - theta0) + c dtheta/dt + preload + friction
  * tanh(...) + actuator(t, angle, speed)`` resists the joint angle theta (angle of x_I from
  x_J about z_J, continuous over turns): torque -T on part I, +T on part J.
- Coulomb friction is smoothed by tanh over V_FRICTION (1 mm/s, 1 mrad/s) so the
  equations stay smooth for the integrator.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..base.errors import ExpressionError
from ..base.rotations import congruence, cross
from ..model.force_model import ForceModel
from .constraints import joint_angle

V_FRICTION = 1e-3


@dataclass
class ForceEval:
    """Generalized forces Q (nb+1, 6) (ground row last, force and moment about the COM) and
    what energy bookkeeping needs."""
    Q: np.ndarray
    potential: float          # springs' stored energy (k and preload terms), J
    power_nc: float           # power of dampers, friction, actuators and loads, W
    sd_length: np.ndarray
    sd_tension: np.ndarray
    ts_angle: np.ndarray
    ts_torque: np.ndarray


_NO_FORCES = ForceEval(np.zeros((0, 6)), 0.0, 0.0, np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0))


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", a, b)


def _actuator(act: Callable[..., float], what: str, t: float, x: float, xd: float) -> float:
    """An actuator's value; any failure or a non-finite value is an ExpressionError naming
    the element and the time (the analyses turn it into a SolverError with the frames)."""
    try:
        val = float(act(t, x, xd))
    except ExpressionError as exc:
        raise ExpressionError(f"{what}: {exc}") from None
    except Exception as exc:  # a user's callable may raise anything
        raise ExpressionError(f"{what}: the actuator failed at t={t:.6g} s: "
                              f"{type(exc).__name__}: {exc}") from None
    if not math.isfinite(val):
        raise ExpressionError(f"{what}: the actuator gives {val} at t={t:.6g} s")
    return val


def evaluate_forces(fm: ForceModel, t: float, r: np.ndarray, A: np.ndarray, v: np.ndarray,
                    w: np.ndarray, ts_ref: np.ndarray) -> ForceEval:
    """Generalized forces of all force elements at one state (arrays with the ground last).

    ``ts_ref`` (nts,) is a recent value of each torsion angle; the angle returned is the
    branch of atan2 nearest to it, so springs wound past half a turn keep their torque.
    """
    Q = np.zeros((len(r), 6))
    pot = pnc = 0.0
    # translational spring-damper-actuators (seed 001)
    n = len(fm.sd_names)
    L = fsd = np.zeros(0)
    if n:
        bi, bj = fm.sd_bi, fm.sd_bj
        si = np.einsum("nij,nj->ni", A[bi], fm.sd_si)
        sj = np.einsum("nij,nj->ni", A[bj], fm.sd_sj)
        d = r[bj] + sj - r[bi] - si                       # from P_I to P_J
        L = np.linalg.norm(d, axis=1)
        if np.any(L < 1e-12):
            k = int(np.argmin(L))
            raise FloatingPointError(f"spring-damper {fm.sd_names[k]!r}: its two markers coincide "
                                     "(length 0, no direction for the force)")
        u = d / L[:, None]
        dd = v[bj] + cross(w[bj], sj) - v[bi] - cross(w[bi], si)
        Ld = _dot(u, dd)
        fnc = fm.sd_c * Ld + fm.sd_fric * np.tanh(Ld / V_FRICTION)
        for k, act in enumerate(fm.sd_act):
            if act is not None:
                fnc[k] += _actuator(act, f"spring-damper {fm.sd_names[k]!r}", t, L[k], Ld[k])
        fsd = fm.sd_k * (L - fm.sd_L0) + fm.sd_pre + fnc
        F = fsd[:, None] * u                              # on I; -F on J
        np.add.at(Q, bi, np.concatenate([F, cross(si, F)], axis=1))
        np.add.at(Q, bj, np.concatenate([-F, -cross(sj, F)], axis=1))
        pot += float(np.sum(0.5 * fm.sd_k * (L - fm.sd_L0) ** 2 + fm.sd_pre * L))
        pnc -= float(np.sum(fnc * Ld))
    # torsion springs: generalized torque -T dtheta/dpi (the angle row's Jacobian g)
    n = len(fm.ts_names)
    th = T = np.zeros(0)
    if n:
        bi, bj = fm.ts_bi, fm.ts_bj
        xi = np.einsum("nij,nj->ni", A[bi], fm.ts_xi)
        xj = np.einsum("nij,nj->ni", A[bj], fm.ts_xj)
        yj = np.einsum("nij,nj->ni", A[bj], fm.ts_yj)
        raw, g = joint_angle(xi, xj, yj)[:2]
        th = raw + 2.0 * np.pi * np.round((ts_ref - raw) / (2.0 * np.pi))
        thd = _dot(g, w[bi] - w[bj])
        tnc = fm.ts_c * thd + fm.ts_fric * np.tanh(thd / V_FRICTION)
        for k, act in enumerate(fm.ts_act):
            if act is not None:
                tnc[k] += _actuator(act, f"torsion spring {fm.ts_names[k]!r}", t, th[k], thd[k])
        T = fm.ts_k * (th - fm.ts_th0) + fm.ts_pre + tnc
        tq = T[:, None] * g
        np.add.at(Q[:, 3:], bi, -tq)
        np.add.at(Q[:, 3:], bj, tq)
        pot += float(np.sum(0.5 * fm.ts_k * (th - fm.ts_th0) ** 2 + fm.ts_pre * th))
        pnc -= float(np.sum(tnc * thd))
    # applied forces and torques at markers
    n = len(fm.ld_names)
    if n:
        vals = np.array([[f.value(t) for f in funcs] for funcs in fm.ld_funcs])   # (n, 6)
        b = fm.ld_body
        Ab = A[b]
        axes = np.einsum("nij,njk->nik", Ab, fm.ld_axes)
        F = np.where(fm.ld_in_marker[:, None], np.einsum("nij,nj->ni", axes, vals[:, :3]), vals[:, :3])
        Tq = np.where(fm.ld_in_marker[:, None], np.einsum("nij,nj->ni", axes, vals[:, 3:]), vals[:, 3:])
        s = np.einsum("nij,nj->ni", Ab, fm.ld_point)
        np.add.at(Q, b, np.concatenate([F, cross(s, F) + Tq], axis=1))
        vp = v[b] + cross(w[b], s)
        pnc += float(np.sum(_dot(F, vp) + _dot(Tq, w[b])))
    return ForceEval(Q, pot, pnc, L, fsd, th, T)


def total_forces(model: Any, t: float, rg: np.ndarray, A: np.ndarray, vg: np.ndarray,
                 wg: np.ndarray, ts_ref: np.ndarray) -> tuple[np.ndarray, ForceEval]:
    """Q (nb, 6): gravity at the centre of mass, gyroscopic moment -w x (I_w w) and every
    force element, as force and moment about each body's centre of mass (world axes)."""
    if model.forces.empty:
        return body_loads(model, A, wg)[0], _NO_FORCES
    fe = evaluate_forces(model.forces, t, rg, A, vg, wg, ts_ref)
    return fe.Q[: model.nb] + body_loads(model, A, wg)[0], fe


def body_loads(model: Any, A: np.ndarray, wg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Q (..., nb, 6): gravity at each centre of mass and the gyroscopic moment
    -w x (I_w w); I_w (..., nb, 3, 3) = A I A^T) for rotation matrices and angular
    velocities with at least nb rows (leading axes, e.g. frames, carried through)."""
    nb = model.nb
    Ab, w = A[..., :nb, :, :], wg[..., :nb, :]
    Iw = congruence(Ab, model.body_inertia)
    Q = np.empty(w.shape[:-1] + (6,))
    Q[..., :3] = model.body_mass[:, None] * model.gravity[None, :]
    Q[..., 3:] = -cross(w, np.einsum("...bij,...bj->...bi", Iw, w))
    return Q, Iw


def inertia_world(model: Any, A: np.ndarray) -> np.ndarray:
    """(nb, 3, 3) inertia about the centre of mass in world axes, A I A^T."""
    return congruence(A, model.body_inertia)
