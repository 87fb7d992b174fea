"""Spring-damper-actuators (Nikravesh 1988, "Translational / Rotational spring-damper-
actuator"): their geometry and law, shared by the force kernels (kernels/forces.py) and the
Result's read-out (Result.spring, Result.torsion_spring), so both give the same numbers.

Signs (kernels/forces.py says the same):
- a spring-damper between markers I and J: tension f = k (l - L0) + preload + c dl/dt +
  friction tanh(dl/dt / V_FRICTION) + actuator(t, l, dl/dt), l = |P_J - P_I|; positive f
  pulls the markers together (force f u on part I at P_I, u the unit vector from P_I to
  P_J; -f u on part J at P_J);
- a torsion spring on a joint's angle theta (x_I from x_J about z_J, turns kept): torque
  T = k (theta - theta0) + preload + c dtheta/dt + friction tanh(...) + actuator(t, theta,
  dtheta/dt) resisting it: -T about the joint's axis on part I, +T on part J.
"""
from __future__ import annotations

import math
from typing import Any, Callable, NamedTuple

import numpy as np

from ..base.errors import ExpressionError
from ..base.rotations import cross, joint_angle
from .force_model import ForceModel

V_FRICTION = 1e-3          # m/s or rad/s: the speed over which Coulomb friction is smoothed
_ONES3 = np.ones(3)


def fixed(fm: ForceModel, key: Any, make: Callable[[], Any]) -> Any:
    """What ``make`` derives from the force model's fixed arrays (the elements' ends, their
    body-frame vectors side by side), made once per force model."""
    cache = fm.__dict__.setdefault("_fixed", {})
    if key not in cache:
        cache[key] = make()
    return cache[key]


def stacked(*vecs: np.ndarray) -> np.ndarray:
    """Body-frame vectors (n, 3) of the elements' ends one after the other (2n or 3n, 3);
    a design study's stacked model may give some a leading variant axis: broadcast."""
    return np.concatenate(np.broadcast_arrays(*vecs), axis=-2)


def actuator_value(act: Callable[..., float], what: str, t: float, x: float, xd: float) -> float:
    """An actuator's value; any failure or a non-finite value is an ExpressionError naming
    the element and the time (the analyses turn it into a SolverError with the frames)."""
    at = float(t) if np.ndim(t) == 0 else None      # (the time it fails at, for the run)
    try:
        val = float(act(t, x, xd))
    except ExpressionError as exc:      # (an expression's message may name the element)
        said = str(exc)
        raise ExpressionError(said if said.startswith(what) else f"{what}: {said}",
                              time=at) from None
    except Exception as exc:  # a user's callable may raise anything
        raise ExpressionError(f"{what}: the actuator failed at t={t:.6g} s: "
                              f"{type(exc).__name__}: {exc}", time=at) from None
    if not math.isfinite(val):
        raise ExpressionError(f"{what}: the actuator gives {val} at t={t:.6g} s", time=at)
    return val


def spring_law(kind: str, names: list, k, x0, pre, c, fric, acts: list, t: float, x, xd):
    """Nikravesh 1988's spring-damper-actuator law, the same for a length and a joint angle:
    (tanh(xd / V), the non-conservative part c xd + friction tanh(xd / V) + actuator(t, x,
    xd), the whole k (x - x0) + preload + that), one entry per element.  ``pre`` or
    ``fric`` None: every element's is zero (``zero_terms``), its term left out (tanh then
    0.0): the same numbers, x + 0 being x, in fewer numpy calls."""
    if fric is None:
        tanh, nc = 0.0, c * xd
    else:
        tanh = np.tanh(xd / V_FRICTION)
        nc = c * xd + fric * tanh
    for i, act in enumerate(acts if acts.count(None) < len(acts) else ()):
        if act is None:
            continue
        what = f"{kind} {names[i]!r}"
        if np.ndim(x) > 1:  # leading axes of states (stages, a study's variants), a time each
            ts = np.broadcast_to(t, x.shape[:-1]).reshape(-1)
            # one function for all, or (a design study's stacked model: ``each``) one per
            # state, each variant's own
            fns = act.each(len(ts)) if hasattr(act, "each") else [act] * len(ts)
            nc[..., i] += np.reshape([actuator_value(f, what, float(tk), xk, xdk)
                                      for f, tk, xk, xdk in
                                      zip(fns, ts, x[..., i].reshape(-1),
                                          xd[..., i].reshape(-1))], x.shape[:-1])
        else:
            nc[i] += actuator_value(act, what, t, x[i], xd[i])
    return tanh, nc, (k * (x - x0) + nc if pre is None else k * (x - x0) + pre + nc)


def zero_terms(fm: ForceModel, kind: str) -> tuple[Any, Any]:
    """(preload, friction) of the force model's spring-dampers (``kind`` "sd") or torsion
    springs ("ts") for ``spring_law``, each None where every element's is zero: what the
    compiled model fixes, read once per force model."""
    def make():
        pre, fric = getattr(fm, kind + "_pre"), getattr(fm, kind + "_fric")
        return (pre if np.any(pre) else None), (fric if np.any(fric) else None)
    return fixed(fm, kind + "_zero_terms", make)


class SpringDampers(NamedTuple):
    """Spring-damper geometry and tension at one state (one entry per element)."""
    arms: np.ndarray     # (2n, 3) arms from I's (then J's) centre of mass to P_I (P_J), world
    u: np.ndarray        # (n, 3) unit direction from P_I to P_J
    L: np.ndarray        # (n,) length l
    dd: np.ndarray       # (n, 3) relative velocity of P_J from P_I
    Ld: np.ndarray       # (n,) dl/dt
    tanh: np.ndarray     # (n,) tanh(dl/dt / V_FRICTION)
    fnc: np.ndarray      # (n,) the non-conservative part of the tension
    f: np.ndarray        # (n,) tension


def spring_geometry(fm: ForceModel, r, A, v, w) -> tuple[np.ndarray, ...]:
    """(arms, u, L, dd, Ld) of SpringDampers: d = P_J - P_I, l = |d|, u = d / l, the
    relative velocity dd of P_J from P_I and dl/dt = u . dd.  Both ends' arms turned by one
    product, their points and velocities gathered once; leading axes carried."""
    n = len(fm.sd_names)
    ends = fixed(fm, "sd_ends", lambda: np.concatenate([fm.sd_bi, fm.sd_bj]))
    vecs = fixed(fm, "sd_vecs", lambda: stacked(fm.sd_si, fm.sd_sj)[..., None])
    S = (A.take(ends, axis=-3) @ vecs)[..., 0]
    P = r.take(ends, axis=-2) + S
    d = P[..., n:, :] - P[..., :n, :]                # from P_I to P_J
    L = np.sqrt((d * d) @ _ONES3)
    if L.min() < 1e-12:
        k = int(np.argmin(L)) % n
        raise FloatingPointError(f"spring-damper {fm.sd_names[k]!r}: its two markers coincide "
                                 "(length 0, no direction for the force)")
    u = d / L[..., None]
    Vp = v.take(ends, axis=-2) + cross(w.take(ends, axis=-2), S)
    dd = Vp[..., n:, :] - Vp[..., :n, :]
    return S, u, L, dd, (u * dd) @ _ONES3


def spring_dampers(fm: ForceModel, t: float, r, A, v, w) -> SpringDampers:
    """Nikravesh 1988, "Translational spring-damper-actuator": the geometry
    (``spring_geometry``) and the tension f = k (l - L0) + preload + c dl/dt + friction
    tanh(dl/dt / V) + actuator(t, l, dl/dt)."""
    S, u, L, dd, Ld = spring_geometry(fm, r, A, v, w)
    pre, fric = zero_terms(fm, "sd")
    tanh, fnc, f = spring_law("spring-damper", fm.sd_names, fm.sd_k, fm.sd_L0, pre,
                              fm.sd_c, fric, fm.sd_act, t, L, Ld)
    return SpringDampers(S, u, L, dd, Ld, tanh, fnc, f)


def torsion_geometry(fm: ForceModel, A, ts_ref):
    """(x_I, x_J, y_J (..., n, 3), joint_angle's tuple, theta (..., n)): each torsion
    spring's axes in world axes and its joint angle on the atan2 branch nearest ts_ref."""
    n = len(fm.ts_names)
    ends = fixed(fm, "ts_ends", lambda: np.concatenate([fm.ts_bi, fm.ts_bj, fm.ts_bj]))
    vecs = fixed(fm, "ts_vecs", lambda: stacked(fm.ts_xi, fm.ts_xj, fm.ts_yj)[..., None])
    X = (A.take(ends, axis=-3) @ vecs)[..., 0]
    xi, xj, yj = X[..., :n, :], X[..., n:2 * n, :], X[..., 2 * n:, :]
    angle = joint_angle(xi, X[..., n:, :].reshape(X.shape[:-2] + (2, n, 3)))   # x_J, y_J
    return xi, xj, yj, angle, on_turn(angle[0], ts_ref)


def on_turn(raw: np.ndarray, ts_ref: np.ndarray) -> np.ndarray:
    """atan2's angles ``raw`` (rad) moved by whole turns to the branch nearest ts_ref."""
    return raw + 2.0 * np.pi * np.rint((ts_ref - raw) / (2.0 * np.pi))   # (np.round's)
